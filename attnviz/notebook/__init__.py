"""attnviz in a notebook: `show` draws a capture inline, `explore` adds controls for map, head, layer and
figure."""
