"""Pure cores: no asyncio, no sockets, no sqlite; time is passed in."""
