"""adapter_js package."""
