import Glibc
import SystemSupport
import Testing

@Suite struct PathsTests {
    @Test func absoluteXDGDirectoriesHoldLlmstersFiles() {
        let paths = Paths(environment: [
            "HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg", "XDG_DATA_HOME": "/data",
            "XDG_STATE_HOME": "/state", "XDG_CACHE_HOME": "/cache"
        ])
        #expect(paths.configFile == "/cfg/llmster/config")
        #expect(paths.credentialsFile == "/cfg/llmster/credentials")
        #expect(paths.libraryFile == "/data/llmster/library.sqlite3")
        #expect(paths.historyFile == "/state/llmster/history")
        #expect(paths.cacheDirectory == "/cache/llmster")
    }

    @Test(arguments: [nil, "", "relative/dir", "./here"] as [String?])
    func anUnsetEmptyOrRelativeXDGVariableFallsBackToHome(value: String?) {
        var environment = ["HOME": "/home/u"]
        for variable in ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"] {
            environment[variable] = value
        }
        let paths = Paths(environment: environment)
        #expect(paths.configFile == "/home/u/.config/llmster/config")
        #expect(paths.credentialsFile == "/home/u/.config/llmster/credentials")
        #expect(paths.libraryFile == "/home/u/.local/share/llmster/library.sqlite3")
        #expect(paths.historyFile == "/home/u/.local/state/llmster/history")
        #expect(paths.cacheDirectory == "/home/u/.cache/llmster")
    }

    @Test(arguments: [[:], ["HOME": ""]] as [[String: String]])
    func anUnsetOrEmptyHomeIsTheUsersPasswdEntry(environment: [String: String]) throws {
        let entry = try #require(getpwuid(getuid()))
        let home = String(cString: entry.pointee.pw_dir)
        let paths = Paths(environment: environment)
        #expect(paths.libraryFile == home + "/.local/share/llmster/library.sqlite3")
        #expect(paths.configFile.hasPrefix("/"))
    }
}
