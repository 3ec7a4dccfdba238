"""The audience model: users' tags and custom fields, CSV import, and saved segments."""
