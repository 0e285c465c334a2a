"""The API database."""
