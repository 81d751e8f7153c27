"""The serving runtime: `gruft serve`, the WSGI entry its workers run, gunicorn's hooks and
its redacted error log."""
