"""``python -m agents.cli``: the ``qwop`` command."""

from agents.cli.main import main

raise SystemExit(main())
