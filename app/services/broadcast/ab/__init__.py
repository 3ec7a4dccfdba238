"""A/B tests: versions of one broadcast sent to a random test share, and the winner sent to everyone else once."""
