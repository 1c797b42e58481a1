"""``python -m hrpsim.viewer``: the OnlineViewer server process (see hrpsim.viewer.server)."""

import sys

from .server import main

sys.exit(main())
