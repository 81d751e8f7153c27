"""`python -m cli`: the gruft command."""

from cli import main

raise SystemExit(main())
