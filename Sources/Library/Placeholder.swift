/// Placeholder until the Library module lands.
enum LibraryPlaceholder {}
