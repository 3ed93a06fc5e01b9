/// Placeholder until the EditorRPC module lands.
enum EditorRPCPlaceholder {}
