// The fuzzer's entry point. Built by `scripts/fuzz.sh` with libFuzzer (`-sanitize=fuzzer`,
// `-DVAULT_LIBFUZZER`): libFuzzer's `main` drives `LLVMFuzzerTestOneInput`, on the target named
// by `VAULT_FUZZ_TARGET`. Built as usual, it is the seeded fuzzer (`FuzzDriver`):
//
//     vault-fuzz room --runs 100000 Fuzz/corpus/room
import Foundation
import VaultFuzzing

#if VAULT_LIBFUZZER
    import CVaultFuzzer
#endif

#if VAULT_LIBFUZZER
    nonisolated(unsafe) let fuzzTarget: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["VAULT_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            fatalError("set VAULT_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue))")
        }
        return target
    }()

    @_cdecl("LLVMFuzzerTestOneInput")
    public func vaultFuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        let broken = fuzzTarget.run(bytes)
        if !broken.isEmpty { fatalError("vault-fuzz \(fuzzTarget.rawValue): \(broken.joined(separator: "; "))") }
        return 0
    }

    // The process's entry point (SwiftPM links `main` to it): libFuzzer's driver.
    @_cdecl("vault_fuzz_main")
    public func vaultFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments) { data, size in vaultFuzzOne(data, size) }
    }
#else
    @main
    struct VaultFuzz {
        static func main() { exit(FuzzDriver.commandLine(CommandLine.arguments)) }
    }
#endif
