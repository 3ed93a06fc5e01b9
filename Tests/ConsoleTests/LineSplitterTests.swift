import Testing

@testable import Console

@Suite struct LineSplitterTests {
    private func pieces(_ bytes: [UInt8], cutAt cut: Int) -> [LineSplitter.Piece] {
        var splitter = LineSplitter()
        var result: [LineSplitter.Piece] = []
        for part in [bytes[..<cut], bytes[cut...]] {
            splitter.feed(part)
            while let piece = splitter.next() {
                result.append(piece)
                if piece == .end { return result }
            }
        }
        return result
    }

    @Test func linesEndAtLineFeedCarriageReturnOrBothAtEveryCut() {
        let bytes = Array("one\ntwo\rthree\r\nfour\n\nsix é\n\u{4}ignored\n".utf8)
        for cut in 0...bytes.count {
            #expect(
                pieces(bytes, cutAt: cut) == [
                    .line("one"), .line("two"), .line("three"), .line("four"), .line(""),
                    .line("six é"), .end
                ], "cut at \(cut)")
        }
    }

    @Test func aLineStillArrivingIsNotReturnedAndCtrlCDiscardsIt() {
        var splitter = LineSplitter()
        splitter.feed(Array("done\nhalf".utf8))
        #expect(splitter.next() == .line("done"))
        #expect(splitter.next() == nil)
        #expect(splitter.discard() == "half")
        splitter.feed(Array(" again\n".utf8))
        #expect(splitter.next() == .line(" again"))
    }

    @Test func theEndOfInputComesAfterTheCompleteLines() {
        var splitter = LineSplitter()
        splitter.feed(Array("last\n".utf8))
        splitter.finish()
        #expect(splitter.next() == .line("last"))
        #expect(splitter.next() == .end)
    }
}
