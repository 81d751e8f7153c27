"""Read models: the game index and the player statistics, projected from the games' log.

`ReadModels(games)` is the read side an API worker uses, built by its owner (api/worker.py):
it waits, bounded, for the views to include what was stored before the read.
`ReadModelRunner` is eventsourcing's projection runner over `GameViews`; `run`, `rebuild` and
`status` back `gruft project` and `gruft projections …`. See the README, "Read models".
"""

from service.readmodels.lifecycle import (
    EmbeddedRunner,
    Progress,
    ReadModels,
    rebuild,
    run,
    status,
)
from service.readmodels.projection import GameViews, ReadModelRunner, open_view, views_env
from service.readmodels.views import GameUpdate, ReadModelView
from service.runners.machinery import RunnerBusy, RunnerLock

__all__ = ["EmbeddedRunner", "GameUpdate", "GameViews", "Progress", "ReadModelRunner",
           "ReadModelView", "ReadModels", "RunnerBusy", "RunnerLock", "open_view",
           "rebuild", "run", "status", "views_env"]
