"""The rules engine: pure Python, no Django. The only place where game rules live."""
