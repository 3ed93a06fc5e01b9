/// Placeholder until the Console module lands.
enum ConsolePlaceholder {}
