/// What a slash command's arguments are, for tab completion.
enum SlashArgument: Sendable, Equatable {
    case none
    case commandName
    case modelKey
    case instance
    case folder
    case conversation
    case preset
    case setting
    case path
    case choices([String])
    /// A `server.NAME` profile.
    case serverProfile
}
