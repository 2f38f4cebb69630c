// SPDX-License-Identifier: Apache-2.0
// TLS files: certificates and keys made by the openssl command in a temporary folder, and
// each way a file can be wrong.
#include "common/tls_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace tilejit {
namespace {

class TlsFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("tilejit_tls_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    // Two self-signed EC certificates with their keys, and the first key encrypted.
    for (const char* name : {"a", "b"}) {
      Openssl(
          "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
          "-subj /CN=" +
          std::string(name) + " -keyout " + Path(name) + ".key -out " + Path(name) + ".pem");
    }
    Openssl("pkey -in " + Path("a") + ".key -aes256 -passout pass:secret -out " + Path("enc") +
            ".key");
    std::ofstream(Path("text.pem")) << "not a certificate\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static void Openssl(const std::string& args) {
    const std::string command = "openssl " + args + " </dev/null >/dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  static std::string Error(const TlsFiles& files) {
    Result<TlsPem> pem = LoadTlsFiles(files);
    EXPECT_FALSE(pem.ok());
    return pem.ok() ? std::string() : pem.status().message();
  }

  std::filesystem::path dir_;
};

TEST_F(TlsFilesTest, LoadsACertificateItsKeyAndACa) {
  Result<TlsPem> pem = LoadTlsFiles({Path("b.pem"), Path("a.pem"), Path("a.key")});
  ASSERT_TRUE(pem.ok()) << pem.status();
  EXPECT_NE(pem->ca.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_NE(pem->cert.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_NE(pem->key.find("PRIVATE KEY"), std::string::npos);
  Result<TlsPem> ca_only = LoadTlsFiles({Path("a.pem"), "", ""});
  ASSERT_TRUE(ca_only.ok()) << ca_only.status();
  EXPECT_TRUE(ca_only->cert.empty());
  EXPECT_FALSE(TlsFiles{}.any());
}

TEST_F(TlsFilesTest, RefusesAKeyThatIsNotTheCertificates) {
  EXPECT_EQ(Error({"", Path("a.pem"), Path("b.key")}),
            "the TLS private key " + Path("b.key") + " is not the key of the certificate in " +
                Path("a.pem"));
}

TEST_F(TlsFilesTest, RefusesACertificateWithoutItsKeyAndAKeyWithoutItsCertificate) {
  EXPECT_EQ(Error({"", Path("a.pem"), ""}), "a TLS certificate needs its private key");
  EXPECT_EQ(Error({"", "", Path("a.key")}), "a TLS key needs its certificate");
}

TEST_F(TlsFilesTest, NamesAMissingFileOrOneWithoutPem) {
  EXPECT_EQ(Error({Path("missing.pem"), "", ""}),
            "cannot read the TLS CA certificate file " + Path("missing.pem"));
  EXPECT_EQ(Error({Path("text.pem"), "", ""}),
            "the TLS CA certificate file " + Path("text.pem") + " holds no PEM certificate");
  EXPECT_EQ(Error({"", Path("a.key"), Path("a.key")}),
            "the TLS certificate file " + Path("a.key") + " holds no PEM certificate");
  EXPECT_EQ(Error({"", Path("a.pem"), Path("a.pem")}),
            "the TLS private key file " + Path("a.pem") + " holds no unencrypted PEM private key");
}

TEST_F(TlsFilesTest, RefusesAnEncryptedKeyWithoutPrompting) {
  EXPECT_EQ(
      Error({"", Path("a.pem"), Path("enc.key")}),
      "the TLS private key file " + Path("enc.key") + " holds no unencrypted PEM private key");
}

TEST_F(TlsFilesTest, RefusesAFileLargerThanTheCap) {
  std::ofstream(Path("big.pem")) << std::string(kMaxPemFileBytes + 1, 'x');
  EXPECT_NE(Error({Path("big.pem"), "", ""}).find("is larger than"), std::string::npos);
}

}  // namespace
}  // namespace tilejit
