"""hrpsim's viewer: OpenHRP's OnlineViewer served as a web page that draws the world.

- ``server``: the process behind `hrpsim up --viewer` / `hrpsim run --view` (``python -m
  hrpsim.viewer``): the ``OnlineViewer`` CORBA servant and the HTTP + WebSocket server;
- ``live``: what clients pushed (models, logs of frames, settings), for the pages;
- ``replay``: the same for a finished run's results directory (`hrpsim view RESULTS`);
- ``scene``: BodyInfo -> the page's body description, and the kinematics that pose it;
- ``frames``: the binary frame messages between server and page;
- ``web``: the aiohttp application (page, JSON API, WebSocket stream);
- ``browser``: drive headless Chromium over the DevTools protocol (tests, benchmarks,
  screenshots).
"""
