"""Search documents and saved searches."""
