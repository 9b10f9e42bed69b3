"""The browser: a reference game-client back end (``cardroom web serve``) that holds each
browser's player identity in a signed cookie and relays that player's seat stream over a
WebSocket, plus a replay viewer at ``/games/<game id>``.  It reaches the matchmaker and
replay only through their public gRPC API, and says what the terminal client says (every
sentence from :mod:`services.client.render`)."""
