"""Read models: the game index and the player statistics, projected from the games' log.

`read_models(games)` is the read side an API worker uses (waiting, bounded, for the views to
include what was stored before the read); `ReadModelRunner` is eventsourcing's projection
runner over `GameViews`; `run`, `rebuild` and `status` back `gruft project` and
`gruft projections …`. See the README, "Read models".
"""

from service.readmodels.lifecycle import (
    EmbeddedRunner,
    Progress,
    ReadModels,
    RunnerBusy,
    RunnerLock,
    read_models,
    rebuild,
    run,
    status,
)
from service.readmodels.projection import GameViews, ReadModelRunner, open_view, views_env
from service.readmodels.views import GameUpdate, ReadModelView

__all__ = ["EmbeddedRunner", "GameUpdate", "GameViews", "Progress", "ReadModelRunner",
           "ReadModelView", "ReadModels", "RunnerBusy", "RunnerLock", "open_view",
           "read_models", "rebuild", "run", "status", "views_env"]
