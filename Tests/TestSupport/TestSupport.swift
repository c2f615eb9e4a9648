// Shared launchers for tests.
