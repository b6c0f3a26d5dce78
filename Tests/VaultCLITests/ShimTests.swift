import CGit2Loader
import CCurlShims
import CGitShims
import Testing
import VaultTestSupport

/// The C shim compiles, loads libgit2 and libcurl, and passes arguments through.
@Suite struct ShimTests {
    @Test func curlOptionsReachLibcurl() {
        #expect(cvault_curl_load() == nil)
        let handle = cvault_curl_easy_init()
        #expect(handle != nil)
        defer { cvault_curl_easy_cleanup(handle) }
        #expect(cvault_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT, 5) == CURLE_OK)
        #expect(cvault_curl_setopt_string(handle, CURLOPT_URL, "http://127.0.0.1:9/") == CURLE_OK)
        // A string where libcurl expects a number of a range it checks: rejected, so the call really reached it.
        #expect(cvault_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, 9999) != CURLE_OK)
    }

    /// libgit2 is not linked: it is loaded on demand, and its functions reached through
    /// CGit2Loader's trampolines of the same names (which must not call themselves).
    @Test func libgit2IsLoadedAndReachedThroughTrampolines() {
        #expect(cvault_git2_load() == nil)
        #expect(cvault_git2_library() != nil)
        var (major, minor, revision): (Int32, Int32, Int32) = (0, 0, 0)
        #expect(git_libgit2_version(&major, &minor, &revision) == 0)
        #expect("\(major).\(minor)" == LIBGIT2_SOVERSION)
    }

    @Test func libgit2OptionsReachLibgit2() {
        #expect(git_libgit2_init() > 0)
        defer { git_libgit2_shutdown() }
        #expect(cvault_git_set_strict_object_creation(1) == 0)
        #expect(cvault_git_set_fsync_gitdir(1) == 0)
    }

    /// libgit2 starts without parsing the TLS certificates in the `vault` executable: libgit2's
    /// calls to mbedTLS's certificate loaders are bound to the executable's stand-ins
    /// (`CGitShims/git.c`), which load nothing while `cvault_git_init` runs. Seen in the
    /// dynamic linker's own record of its bindings (`LD_DEBUG=bindings`) of a real `vault log`:
    /// a stand-in the executable does not export is never called, and libgit2 then parses the
    /// whole CA bundle on every command.
    @Test func vaultBindsLibgit2sCertificateLoadingToItsStandIns() throws {
        let dir = try freshVault()
        let r = try runVault(["log"], in: dir.path, environment: ["LD_DEBUG": "bindings"])
        #expect(r.status == 0, "\(r.stderr.suffix(2000))")
        let bindings = r.stderr.split(separator: "\n").filter {
            $0.contains("libgit2.so") && $0.contains("`mbedtls_x509_crt_parse_file'")
        }
        // Bound at most once, and then to the executable.
        #expect(bindings.count == 1, "libgit2's binding of mbedtls_x509_crt_parse_file: \(bindings)")
        for line in bindings {
            #expect(line.contains(" to \(Project.vaultExecutable) ") || line.contains(" to vault "),
                "libgit2 calls mbedTLS's own certificate loader, not vault's stand-in: \(line)")
            #expect(!line.contains("libmbedx509"), "\(line)")
        }
    }

    /// Outside `cvault_git_init` the stand-ins pass every call on to mbedTLS: a file that does
    /// not exist gets mbedTLS's own answer (`MBEDTLS_ERR_PK_FILE_IO_ERROR`, -0x3E00), not the
    /// stand-in's "loaded" (0) nor its "mbedTLS not found" (-0x2900).
    @Test func theStandInsPassCallsOnToMbedTLS() {
        #expect(cvault_git2_load() == nil)
        // A zeroed certificate chain, larger than mbedTLS's (it is not touched: the file is not found).
        let chain = UnsafeMutableRawPointer.allocate(byteCount: 8192, alignment: 16)
        chain.initializeMemory(as: UInt8.self, repeating: 0, count: 8192)
        defer { chain.deallocate() }
        #expect(mbedtls_x509_crt_parse_file(chain, "/nonexistent/vault-ca.pem") == -0x3E00)
    }
}
