"""The interfaces the use cases depend on, a module per port family (imported only where used:
a process pays for the families it uses); adapters implement them, the container wires them."""
