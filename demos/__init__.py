"""demos package."""
