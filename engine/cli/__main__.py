"""``python -m engine.cli``: the ``frontier`` command."""

import sys

from engine.cli import main

sys.exit(main())
