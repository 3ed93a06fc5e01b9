/// Placeholder until the Voice module lands.
enum VoicePlaceholder {}
