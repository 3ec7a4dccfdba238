"""`python -m tests.forkserver_probe -c CODE`: run CODE as `python -c` would (the fork server's tests)."""
import sys

if __name__ == "__main__":
    exec(compile(sys.argv[2], "<string>", "exec"), {"__name__": "__main__"})
