"""Actions after sending: unsend, edit and retry over a job's ledger and its retries."""
