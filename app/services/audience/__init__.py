"""The audience model: users' tags and custom fields, deep-link tags, tap buttons, CSV import, saved segments."""
