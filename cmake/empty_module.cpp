// Compiled into a module library whose folder has no sources yet.
