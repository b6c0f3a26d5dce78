import Foundation
import Testing
import VaultFuzzing
import VaultTestSupport

/// The fuzz targets' short run: each target over its seed corpus (`Fuzz/corpus/<target>`),
/// the inputs fuzzing once broke (`Fuzz/regressions/<target>`), and 3,000 inputs mutated from
/// them with a fixed seed (`FuzzDriver`; 1,000 for the import readers' targets, each input an
/// export written to disk and read twice). `scripts/fuzz.sh` runs libFuzzer on the same targets.
@Suite struct FuzzTargetTests {
    static let folder = Project.root + "/Fuzz"

    @Test(arguments: FuzzTarget.allCases)
    func theCorpusAndSeededMutationsBreakNothing(target: FuzzTarget) {
        let corpus = FuzzDriver.corpus(at: FuzzTargetTests.folder + "/corpus/" + target.rawValue)
        let regressions = FuzzDriver.corpus(at: FuzzTargetTests.folder + "/regressions/" + target.rawValue)
        #expect(corpus.count >= 5, "the seed corpus of \(target) is missing")
        let runs = ProcessInfo.processInfo.environment["VAULT_FUZZ_RUNS"].flatMap(Int.init) ?? (target.readsAnExport ? 1000 : 3000)
        let failures = FuzzDriver.run(target, corpus: corpus + regressions, mutations: runs, seed: 20_261_123)
        for failure in failures.prefix(5) {
            let input = String(decoding: failure.input, as: UTF8.self).debugDescription
            Issue.record("\(target): \(failure.broken) for input \(input)")
        }
        #expect(failures.isEmpty)
    }
}
