// swift-tools-version:6.2
import PackageDescription

/// A C library from a Debian `-dev` package, reached through `Sources/<name>/module.modulemap` and `shim.h`.
func systemLibrary(_ name: String, pkgConfig: String, apt: [String]) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
    name: "llmster",
    products: [
        .executable(name: "llmster", targets: ["llmster"]),
        .executable(name: "lmstudio-sim", targets: ["lmstudio-sim"])
    ],
    targets: [
        systemLibrary("CCurl", pkgConfig: "libcurl", apt: ["libcurl4-openssl-dev"]),
        systemLibrary("CCmarkGFM", pkgConfig: "libcmark-gfm", apt: ["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"]),
        systemLibrary("CReadline", pkgConfig: "readline", apt: ["libreadline-dev"]),
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: ["libsqlite3-dev"]),
        systemLibrary("CSodium", pkgConfig: "libsodium", apt: ["libsodium-dev"]),
        systemLibrary("CLibXML2", pkgConfig: "libxml-2.0", apt: ["libxml2-dev"]),
        .systemLibrary(name: "CPocketSphinx"),  // shim.h opens libpocketsphinx with dlopen (start-up cost)

        .target(
            name: "CSourceHighlight",
            linkerSettings: [
                .linkedLibrary("source-highlight"), .linkedLibrary("boost_regex"), .linkedLibrary("pcre2-8")
            ]),
        .systemLibrary(name: "CSystem"),
        .target(name: "SystemSupport", dependencies: ["CSystem"]),
        .target(name: "HTTP", dependencies: ["CCurl"]),
        .target(name: "LMStudio", dependencies: ["HTTP", "SystemSupport"]),
        .target(name: "Library", dependencies: ["SystemSupport", "CSQLite", "CSodium"]),
        .target(name: "Chat", dependencies: ["LMStudio", "Library", "HTTP", "SystemSupport", "CLibXML2"]),
        .target(name: "Markdown", dependencies: ["SystemSupport", "CCmarkGFM"]),
        .target(name: "TerminalMarkdown", dependencies: ["Markdown", "SystemSupport", "CSourceHighlight"]),
        .target(
            name: "EditorRPC",
            dependencies: ["Chat", "Library", "LMStudio", "HTTP", "SystemSupport", "Markdown"]),
        .target(name: "Voice", dependencies: ["Chat", "SystemSupport", "CPocketSphinx"]),
        .target(
            name: "Console",
            dependencies: [
                "Chat", "Library", "LMStudio", "HTTP", "Markdown", "TerminalMarkdown", "SystemSupport", "CSystem",
                "CReadline"
            ]),
        .target(name: "Simulator", dependencies: ["SystemSupport"]),

        .executableTarget(
            name: "llmster",
            dependencies: [
                "Console", "EditorRPC", "Voice", "Chat", "Library", "TerminalMarkdown", "Simulator", "SystemSupport",
                "CSodium"
            ]),
        .executableTarget(name: "lmstudio-sim", dependencies: ["Simulator"]),
        .executableTarget(
            name: "llmster-bench",
            dependencies: [
                "LMStudio", "HTTP", "Chat", "Library", "Markdown", "TerminalMarkdown", "SystemSupport", "Simulator"
            ]),

        .target(
            name: "TestSupport", dependencies: ["Simulator", "LMStudio", "Library", "SystemSupport"],
            path: "Tests/TestSupport"),
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport", "TestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "TestSupport"]),
        .testTarget(name: "LMStudioTests", dependencies: ["LMStudio", "HTTP", "Simulator", "TestSupport"]),
        .testTarget(name: "LibraryTests", dependencies: ["Library", "TestSupport"]),
        .testTarget(
            name: "ChatTests",
            dependencies: ["Chat", "LMStudio", "Library", "HTTP", "Simulator", "SystemSupport", "TestSupport"]),
        .testTarget(
            name: "TerminalMarkdownTests",
            dependencies: ["Markdown", "TerminalMarkdown", "SystemSupport", "TestSupport"],
            exclude: ["Snapshots", "Fixtures"]),
        .testTarget(name: "SimulatorTests", dependencies: ["Simulator", "TestSupport"]),
        .testTarget(
            name: "EditorRPCTests",
            dependencies: [
                "EditorRPC", "Chat", "Library", "LMStudio", "HTTP", "Simulator", "SystemSupport", "TestSupport"
            ]),
        .testTarget(name: "VoiceTests", dependencies: ["Voice", "TestSupport", "Simulator", "Library"]),
        .testTarget(
            name: "ConsoleTests",
            dependencies: ["Console", "Chat", "Library", "LMStudio", "Simulator", "TerminalMarkdown", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["TestSupport", "Simulator", "Library"], exclude: ["Snapshots"])
    ],
    swiftLanguageModes: [.v6]
)
