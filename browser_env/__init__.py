"""browser_env package."""
