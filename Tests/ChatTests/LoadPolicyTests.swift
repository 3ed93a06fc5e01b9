import Chat
import Testing

@Suite struct LoadPolicyTests {
    typealias Instance = LoadPolicy.Instance
    let tiny = Instance(id: "acme/tiny-1b", modelKey: "acme/tiny-1b")
    let thinker = Instance(id: "acme/thinker-8b", modelKey: "acme/thinker-8b")
    let thinker2 = Instance(id: "acme/thinker-8b:2", modelKey: "acme/thinker-8b")
    let vision = Instance(id: "acme/vision-7b", modelKey: "acme/vision-7b")

    @Test func unloadsPreviousChatModelAndLoadsTheChosenOne() {
        let plan = LoadPolicy(keepPreviousModels: false, summarizerModel: nil)
            .plan(loaded: [tiny, vision], previous: "acme/tiny-1b", chosen: "acme/thinker-8b")
        #expect(plan == .init(unload: ["acme/tiny-1b"], load: true, keep: nil))
    }

    @Test func keepsUnrelatedModels() {
        let plan = LoadPolicy(keepPreviousModels: false, summarizerModel: nil)
            .plan(loaded: [tiny, vision, thinker], previous: "acme/tiny-1b", chosen: "acme/thinker-8b")
        #expect(plan.unload == ["acme/tiny-1b"])
        #expect(!plan.unload.contains("acme/vision-7b"))
        #expect(plan.keep == "acme/thinker-8b")
        #expect(!plan.load)
    }

    @Test func unloadsDuplicateInstancesOfTheChosenModelKeepingThePlainOne() {
        let plan = LoadPolicy(keepPreviousModels: false, summarizerModel: nil)
            .plan(loaded: [thinker2, thinker], previous: nil, chosen: "acme/thinker-8b")
        #expect(plan == .init(unload: ["acme/thinker-8b:2"], load: false, keep: "acme/thinker-8b"))
    }

    @Test func keepPreviousModelsSettingKeepsThePreviousModel() {
        let plan = LoadPolicy(keepPreviousModels: true, summarizerModel: nil)
            .plan(loaded: [tiny, thinker, thinker2], previous: "acme/tiny-1b", chosen: "acme/thinker-8b")
        #expect(plan == .init(unload: ["acme/thinker-8b:2"], load: false, keep: "acme/thinker-8b"))
    }

    @Test func neverUnloadsTheSummarizer() {
        let policy = LoadPolicy(keepPreviousModels: false, summarizerModel: "acme/tiny-1b")
        #expect(policy.plan(loaded: [tiny], previous: "acme/tiny-1b", chosen: "acme/thinker-8b").unload.isEmpty)
        let duplicateSummarizer = Instance(id: "acme/tiny-1b:2", modelKey: "acme/tiny-1b")
        #expect(policy.plan(loaded: [tiny, duplicateSummarizer], previous: nil, chosen: "acme/tiny-1b").unload.isEmpty)
    }

    @Test func choosingTheSameModelAgainChangesNothing() {
        let plan = LoadPolicy(keepPreviousModels: false, summarizerModel: nil)
            .plan(loaded: [thinker], previous: "acme/thinker-8b", chosen: "acme/thinker-8b")
        #expect(plan == .init(unload: [], load: false, keep: "acme/thinker-8b"))
    }
}

@Suite struct ContextMeterTests {
    @Test(arguments: [(950, "950"), (3100, "3.1k"), (8192, "8k"), (131072, "128k"), (4096, "4k"), (12_345, "12.3k")])
    func compactFigures(tokens: Int, label: String) {
        #expect(ContextMeter.compact(tokens) == label)
    }

    @Test func labelAndOverflow() {
        let meter = ContextMeter(usedTokens: 3100, contextLength: 8192)
        #expect(meter.label() == "ctx 3.1k/8k 38%")
        #expect(!meter.wouldFill(draft: "short", percent: 100))
        #expect(meter.wouldFill(draft: String(repeating: "word ", count: 5000), percent: 100))
        #expect(ContextMeter(usedTokens: 10, contextLength: nil).label() == "ctx 10/?")
    }
}
