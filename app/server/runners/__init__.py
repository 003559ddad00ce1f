"""Background work a serving worker starts once it serves (the master runs none): the
exporters' runner."""
