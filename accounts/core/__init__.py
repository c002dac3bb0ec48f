"""The pure rules of API keys: their format and their hash."""
