import Foundation

/// A seeded fuzzer without libFuzzer: the corpus, then inputs made from it by random
/// mutations (libFuzzer's kinds: bytes flipped, changed, inserted, erased, repeated, copied
/// from another input, and tokens of the target's syntax inserted). It has no coverage
/// feedback, so it finds less than libFuzzer (`scripts/fuzz.sh`) in the same time; it needs no
/// special build, and runs in the test suite.
public enum FuzzDriver {
    /// An input that broke a property.
    public struct Failure: Sendable {
        public var input: [UInt8]
        public var broken: [String]
    }

    /// The files of a corpus folder, sorted by name (none when it does not exist).
    public static func corpus(at folder: String) -> [[UInt8]] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }
            .sorted()
        return names.compactMap { FileManager.default.contents(atPath: folder + "/" + $0).map { Array($0) } }
    }

    /// Runs `target` on every input of `corpus`, then on `mutations` inputs mutated from them.
    ///
    /// - Parameter lastInput: a file each input is written to before it runs, so an input that
    ///   crashes the process is kept (the command line's `--crashes` folder, `last-<target>`).
    public static func run(
        _ target: FuzzTarget, corpus: [[UInt8]], mutations: Int, seed: UInt64, maxLength: Int = 4096,
        lastInput: String? = nil
    ) -> [Failure] {
        var failures: [Failure] = []
        func keep(_ input: [UInt8]) {
            if let lastInput { _ = FileManager.default.createFile(atPath: lastInput, contents: Data(input)) }
        }
        for input in corpus {
            keep(input)
            let broken = target.run(input)
            if !broken.isEmpty { failures.append(Failure(input: input, broken: broken)) }
        }
        var random = FuzzRandom(seed: seed)
        let pool = corpus.isEmpty ? [[]] : corpus
        let dictionary = target.dictionary
        for _ in 0..<mutations {
            var input = pool[Int(random.next() % UInt64(pool.count))]
            for _ in 0...Int(random.next() % 4) {
                input = mutate(input, pool: pool, dictionary: dictionary, maxLength: maxLength, &random)
            }
            keep(input)
            let broken = target.run(input)
            if !broken.isEmpty { failures.append(Failure(input: input, broken: broken)) }
        }
        return failures
    }

    /// One random mutation of `input`.
    static func mutate(
        _ input: [UInt8], pool: [[UInt8]], dictionary: [[UInt8]], maxLength: Int, _ random: inout FuzzRandom
    ) -> [UInt8] {
        var out = input
        func position(_ count: Int) -> Int { count == 0 ? 0 : Int(random.next() % UInt64(count + 1)) }
        switch random.next() % 8 {
        case 0 where !out.isEmpty:
            let i = Int(random.next() % UInt64(out.count))
            out[i] ^= UInt8(1 << (random.next() % 8))
        case 1 where !out.isEmpty:
            let i = Int(random.next() % UInt64(out.count))
            out[i] = UInt8(truncatingIfNeeded: random.next())
        case 2:
            let count = Int(random.next() % 8) + 1
            out.insert(
                contentsOf: (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: position(out.count))
        case 3 where !out.isEmpty:
            let start = Int(random.next() % UInt64(out.count))
            let end = min(out.count, start + Int(random.next() % 16) + 1)
            out.removeSubrange(start..<end)
        case 4 where !out.isEmpty:
            let start = Int(random.next() % UInt64(out.count))
            let end = min(out.count, start + Int(random.next() % 32) + 1)
            out.insert(contentsOf: out[start..<end], at: position(out.count))
        case 5:
            let other = pool[Int(random.next() % UInt64(pool.count))]
            if !other.isEmpty {
                let start = Int(random.next() % UInt64(other.count))
                let end = min(other.count, start + Int(random.next() % 64) + 1)
                out.insert(contentsOf: other[start..<end], at: position(out.count))
            }
        default:
            out.insert(contentsOf: dictionary[Int(random.next() % UInt64(dictionary.count))], at: position(out.count))
        }
        return out.count > maxLength ? Array(out.prefix(maxLength)) : out
    }

    /// `vault-fuzz TARGET [--runs N] [--seed S] [--crashes DIR] [CORPUS...]`: runs the seeded
    /// fuzzer, prints each failure, saves each failing input in the crashes folder, and returns
    /// the exit status (1 when anything broke). An input that crashes the process is left in
    /// the crashes folder as `last-TARGET`.
    public static func commandLine(_ arguments: [String]) -> Int32 {
        var rest = Array(arguments.dropFirst())
        guard let name = rest.first, let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            print("usage: vault-fuzz TARGET [--runs N] [--seed S] [--crashes DIR] [CORPUS...]  (TARGET: \(names))")
            return 2
        }
        rest.removeFirst()
        var runs = 100_000
        var seed: UInt64 = 1
        var crashes = "Fuzz/crashes"
        var folders: [String] = []
        while !rest.isEmpty {
            let argument = rest.removeFirst()
            switch argument {
            case "--runs": runs = Int(rest.isEmpty ? "" : rest.removeFirst()) ?? runs
            case "--seed": seed = UInt64(rest.isEmpty ? "" : rest.removeFirst()) ?? seed
            case "--crashes": crashes = rest.isEmpty ? crashes : rest.removeFirst()
            default: folders.append(argument)
            }
        }
        let inputs = folders.flatMap { corpus(at: $0) }
        try? FileManager.default.createDirectory(atPath: crashes, withIntermediateDirectories: true)
        let last = crashes + "/last-\(target.rawValue)"
        let failures = run(target, corpus: inputs, mutations: runs, seed: seed, lastInput: last)
        try? FileManager.default.removeItem(atPath: last)
        for failure in failures {
            try? FileManager.default.createDirectory(atPath: crashes, withIntermediateDirectories: true)
            let file = crashes + "/\(target.rawValue)-" + String(FuzzRandom.hash(failure.input), radix: 16)
            _ = FileManager.default.createFile(atPath: file, contents: Data(failure.input))
            print("\(file): \(failure.broken.joined(separator: "; "))")
        }
        print(
            "vault-fuzz \(target.rawValue): \(inputs.count) corpus inputs, \(runs) mutations (seed \(seed)), "
                + "\(failures.count) failures"
        )
        return failures.isEmpty ? 0 : 1
    }
}
