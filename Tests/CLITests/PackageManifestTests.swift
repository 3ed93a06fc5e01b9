import Foundation
import Testing

/// `Package.swift` says what each target imports: every module a target imports is declared, and every module it
/// declares is imported, so the graph the manifest shows is the one the code has.
@Suite struct PackageManifestTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// Modules of the toolchain, which no target declares.
    static let toolchain: Set<String> = [
        "Foundation", "Dispatch", "Glibc", "Darwin", "Testing", "Synchronization", "XCTest", "PackageDescription"
    ]

    /// Each Swift target's declared dependencies, read from the manifest's `.target(name:dependencies:)` calls
    /// (over as many lines as swift-format lays them out on).
    static func declared() throws -> [String: Set<String>] {
        let manifest = try String(contentsOfFile: root + "/Package.swift", encoding: .utf8)
            .replacing(/\s*\n\s*/, with: " ")
        var targets: [String: Set<String>] = [:]
        for match in manifest.matches(
            of: /\.(?:target|testTarget|executableTarget)\( ?name: "([^"]+)", dependencies: \[([^\]]*)\]/)
        {
            targets[String(match.1)] = Set(match.2.matches(of: /"([^"]+)"/).map { String($0.1) })
        }
        return targets
    }

    /// The modules the Swift files under `directory` import.
    static func imports(in directory: String) -> Set<String> {
        var modules: Set<String> = []
        let files = (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter {
            $0.hasSuffix(".swift")
        }
        for file in files {
            guard let text = try? String(contentsOfFile: directory + "/" + file, encoding: .utf8) else { continue }
            for match in text.matches(
                of: /(?m)^(?:@testable |internal |public |private )?import ([A-Za-z_][A-Za-z0-9_]*)$/)
            {
                modules.insert(String(match.1))
            }
        }
        return modules.subtracting(toolchain)
    }

    @Test func everyTargetDeclaresExactlyWhatItImports() throws {
        let declared = try Self.declared()
        #expect(declared.count >= 20, "the manifest's targets were read: \(declared.keys.sorted())")
        for (target, dependencies) in declared {
            let directory = [Self.root + "/Sources/" + target, Self.root + "/Tests/" + target].first {
                FileManager.default.fileExists(atPath: $0)
            }
            guard let directory else { continue }
            let imported = Self.imports(in: directory)
            #expect(
                imported.subtracting(dependencies).isEmpty,
                "\(target) imports undeclared \(imported.subtracting(dependencies).sorted())")
            #expect(
                dependencies.subtracting(imported).isEmpty,
                "\(target) declares unused \(dependencies.subtracting(imported).sorted())")
        }
    }

    /// README's module table names every target under Sources once, in an order in which each module's declared
    /// dependencies come above it ("a module imports only modules above it"), so the table is the manifest's graph.
    @Test func readmesModuleTableIsTheManifestsGraph() throws {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let table = try #require(readme.components(separatedBy: "| module | responsibility |").dropFirst().first)
            .components(separatedBy: "\n\n")[0]
        var order: [String] = []
        for row in table.split(separator: "\n") where row.hasPrefix("| `") {
            let cell = row.split(separator: "|", omittingEmptySubsequences: true)[0]
            order += cell.matches(of: /`([^`]+)`/).map { String($0.1) }
        }
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/Sources")
        #expect(order.sorted() == sources.sorted(), "README's modules against Sources")
        let declared = try Self.declared()
        for (index, module) in order.enumerated() {
            for dependency in declared[module] ?? [] {
                let above = order.firstIndex(of: dependency).map { $0 < index } ?? false
                #expect(above, "\(module) depends on \(dependency), which the table does not list above it")
            }
        }
    }
}
