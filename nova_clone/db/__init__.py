"""Database layer: SQLAlchemy models, enginefacade contexts, migrations.

``api`` holds the API database (one per deployment), ``main`` the cell
database (one per cell, cell0 included).
"""
