"""The audience model: users' tags, custom fields, deep-link tags, tap buttons and CSV import."""
