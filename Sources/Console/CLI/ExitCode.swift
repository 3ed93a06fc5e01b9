/// llmster's documented exit statuses (see `man llmster`, EXIT STATUS).
public enum ExitCode {
    public static let success: Int32 = 0
    /// Any other failure: the message says what happened.
    public static let failure: Int32 = 1
    /// The command line was wrong.
    public static let usage: Int32 = 2
    /// LM Studio could not be reached (or is older than 0.4).
    public static let unreachable: Int32 = 3
    /// The API token is missing, malformed or rejected.
    public static let authentication: Int32 = 4
    /// A model, instance or conversation was not found.
    public static let notFound: Int32 = 5
    /// The reply did not complete (stream cut, server error); what arrived was saved.
    public static let incompleteReply: Int32 = 6
    /// Interrupted by Ctrl-C (SIGINT) after saving.
    public static let interrupted: Int32 = 130
    /// Terminated by SIGTERM (or SIGHUP: 129) after saving.
    public static let terminated: Int32 = 143
}
