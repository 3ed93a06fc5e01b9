import Foundation
import Testing

@testable import Voice

@Suite struct ChimeTests {
    @Test func theBundledChimeIsFoundAndIsAShortSound() throws {
        let path = try #require(Chime.soundFile(), "share/sounds/chime.wav is found from the built executables")
        let samples = try WAVFile.samples(Array(try #require(FileManager.default.contents(atPath: path))), path: path)
        let seconds = Double(samples.count) / 16_000
        #expect(seconds > 0.05 && seconds < 0.5, "a short chime, not \(seconds) s")
        #expect(samples.contains { abs(Int($0)) > 3000 }, "audible")
    }
}
