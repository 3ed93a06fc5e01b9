/// Placeholder until the Chat module lands.
enum ChatPlaceholder {}
