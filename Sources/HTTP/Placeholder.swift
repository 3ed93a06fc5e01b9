/// Placeholder until the HTTP module lands.
enum HTTPPlaceholder {}
