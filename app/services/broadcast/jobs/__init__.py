"""Jobs: create, populate, steer and purge broadcast jobs; drafts, views, estimates and offers."""
