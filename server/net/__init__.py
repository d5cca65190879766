"""The network shell: the websocket gateway, the HTTP routes, the room actors."""
