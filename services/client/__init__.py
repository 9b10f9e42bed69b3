"""The terminal client: ``cardroom play`` (a seat at a table, through the matchmaker's public
gRPC API only), ``cardroom replay watch`` (a stored game, step by step, from the replay
service) and ``cardroom call`` (any RPC of the three services with a JSON body).

It is the reference client of the matchmaker: it imports the generated stubs (through
:mod:`services.common.wire`), the rules library for cards and views, and no service's
internals (import-linter checks it).
"""
