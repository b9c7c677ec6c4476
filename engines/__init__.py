"""Everything that executes: the runtime and the engines that answer questions over it."""
