// The HTML reports as a browser draws them: headless Chromium takes a screenshot of a run report,
// a fleet report and a sweep report, libpng decodes it, and the test checks that the page is not
// blank, that the charts' own colours are on it, and that the page logged nothing to the console.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <png.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using fleetsim::testing::lines_of;
using fleetsim::testing::read_file;
using fleetsim::testing::run_command;
using fleetsim::testing::TempDir;

const std::string kBinary = FLEETSIM_BINARY;
constexpr int kWidth = 1280;

struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  // 3 bytes a pixel
};

// Decodes a PNG into 8-bit RGB (composited on white); width 0 when it cannot.
Image read_png(const std::string& path)
{
  Image img;
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&png, path.c_str()) == 0)
    return img;
  png.format = PNG_FORMAT_RGB;
  std::vector<std::uint8_t> buf(PNG_IMAGE_SIZE(png));
  png_color white{255, 255, 255};
  if (png_image_finish_read(&png, &white, buf.data(), 0, nullptr) == 0) {
    png_image_free(&png);
    return img;
  }
  img.width = static_cast<int>(png.width);
  img.height = static_cast<int>(png.height);
  img.rgb = std::move(buf);
  return img;
}

struct Stats {
  double non_white = 0;     // share of pixels that are not (near) white
  std::size_t colours = 0;  // distinct colours
};

Stats stats_of(const Image& img)
{
  Stats s;
  std::set<std::uint32_t> colours;
  std::size_t non_white = 0;
  for (std::size_t i = 0; i + 2 < img.rgb.size(); i += 3) {
    const auto r = img.rgb[i], g = img.rgb[i + 1], b = img.rgb[i + 2];
    colours.insert(static_cast<std::uint32_t>(r) << 16 | static_cast<std::uint32_t>(g) << 8 | b);
    non_white += (r < 245 || g < 245 || b < 245) ? 1 : 0;
  }
  s.non_white = static_cast<double>(non_white) / static_cast<double>(img.rgb.size() / 3);
  s.colours = colours.size();
  return s;
}

// Pixels within 3 of colour #rrggbb on every channel.
std::size_t pixels_of(const Image& img, std::uint32_t hex)
{
  const int want[3] = {static_cast<int>(hex >> 16 & 0xff), static_cast<int>(hex >> 8 & 0xff),
                       static_cast<int>(hex & 0xff)};
  std::size_t n = 0;
  for (std::size_t i = 0; i + 2 < img.rgb.size(); i += 3)
    n += (std::abs(img.rgb[i] - want[0]) <= 3 && std::abs(img.rgb[i + 1] - want[1]) <= 3 &&
          std::abs(img.rgb[i + 2] - want[2]) <= 3)
             ? 1
             : 0;
  return n;
}

struct Render {
  int code = -1;
  std::string log;  // Chromium's stderr
  Image image;
};

// Screenshots `html` at 1280 x height with headless Chromium.
Render render(const TempDir& tmp, const std::string& html, int height)
{
  Render out;
  const std::string png = tmp / "shot.png";
  const std::string log = tmp / "chromium.log";
  const std::string cmd =
      "timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
      "--force-color-profile=srgb --user-data-dir=" +
      (tmp / "profile") + " --screenshot=" + png + " --window-size=" + std::to_string(kWidth) + "," +
      std::to_string(height) + " --enable-logging=stderr --v=0 file://" + fs::absolute(html).string() +
      " > /dev/null 2> " + log;
  out.code = run_command(cmd).code;
  out.log = read_file(log);
  out.image = read_png(png);
  return out;
}

void expect_quiet_console(const std::string& log)
{
  for (const auto& line : lines_of(log))
    EXPECT_EQ(line.find("CONSOLE"), std::string::npos) << "the page logged to the console: " << line;
}

bool have_chromium() { return run_command("command -v chromium > /dev/null 2>&1").code == 0; }

const char* kInstallHint = "chromium is not installed: run `bash tools/test.sh` (it installs chromium and libpng-dev)";

TEST(ReportRender, RunReportDrawsItsCharts)
{
  ASSERT_TRUE(have_chromium()) << kInstallHint;
  TempDir tmp;
  const std::string dir = tmp / "run";
  auto r = run_command(kBinary + " run --set run.duration=20d --set run.step_model=analytic --quiet --out " + dir +
                       " 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  r = run_command(kBinary + " report " + dir + " --quiet 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  const Render shot = render(tmp, dir + "/report.html", 2200);
  ASSERT_EQ(shot.code, 0) << shot.log;
  ASSERT_EQ(shot.image.width, kWidth) << "no decodable PNG; chromium said:\n" << shot.log;
  ASSERT_EQ(shot.image.height, 2200);
  const Stats s = stats_of(shot.image);
  EXPECT_GT(s.non_white, 0.10) << "the page looks blank";
  EXPECT_GT(s.colours, 200u);
  EXPECT_GT(pixels_of(shot.image, 0x43a047), 20000u) << "the training band (#43a047) is missing";
  EXPECT_GT(pixels_of(shot.image, 0xc8e6c9), 20000u) << "the daily goodput bars (#c8e6c9) are missing";
  EXPECT_GT(pixels_of(shot.image, 0xe8710a), 500u) << "the simulated interruption bars (#e8710a) are missing";
  EXPECT_GT(pixels_of(shot.image, 0x1f6fb4), 500u) << "the checkpoint colour (#1f6fb4) is missing";
  expect_quiet_console(shot.log);
}

TEST(ReportRender, RunReportDrawsItsEnergySection)
{
  ASSERT_TRUE(have_chromium()) << kInstallHint;
  TempDir tmp;
  const std::string dir = tmp / "run";
  auto r = run_command(kBinary + " run --set run.duration=20d --set run.step_model=analytic --quiet --out " + dir +
                       " 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  r = run_command(kBinary + " report " + dir + " --quiet 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  const Render shot = render(tmp, dir + "/report.html", 4600);  // the section is below the first 2,200 px
  ASSERT_EQ(shot.code, 0) << shot.log;
  ASSERT_EQ(shot.image.width, kWidth) << "no decodable PNG; chromium said:\n" << shot.log;
  EXPECT_GT(pixels_of(shot.image, 0xffcc80), 30000u) << "the facility power band (#ffcc80) is missing";
  EXPECT_GT(pixels_of(shot.image, 0xe65100), 2000u) << "the facility line and GPU compute bar (#e65100) are missing";
  EXPECT_GT(pixels_of(shot.image, 0x283593), 500u) << "the IT power line (#283593) is missing";
  EXPECT_GT(pixels_of(shot.image, 0x5c6bc0), 1000u) << "the node energy bar (#5c6bc0) is missing";
  expect_quiet_console(shot.log);
}

TEST(ReportRender, FleetReportDrawsItsCharts)
{
  ASSERT_TRUE(have_chromium()) << kInstallHint;
  TempDir tmp;
  const std::string dir = tmp / "fleet";
  auto r = run_command(kBinary + " run " + std::string(FLEETSIM_SOURCE_DIR) +
                       "/scenarios/fleet_kalos_sizing.yaml --set cluster.gpus=1536 --set workload.generator.window=3d "
                       "--set run.duration=4d --quiet --out " +
                       dir + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  r = run_command(kBinary + " report " + dir + " --quiet 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  const Render shot = render(tmp, dir + "/report.html", 1800);
  ASSERT_EQ(shot.code, 0) << shot.log;
  ASSERT_EQ(shot.image.width, kWidth) << "no decodable PNG; chromium said:\n" << shot.log;
  const Stats s = stats_of(shot.image);
  EXPECT_GT(s.non_white, 0.10) << "the page looks blank";
  EXPECT_GT(s.colours, 200u);
  EXPECT_GT(pixels_of(shot.image, 0x43a047), 20000u) << "the training layer (#43a047) is missing";
  EXPECT_GT(pixels_of(shot.image, 0xcfd8dc), 20000u) << "the idle layer (#cfd8dc) is missing";
  EXPECT_GT(pixels_of(shot.image, 0x0d47a1), 1000u) << "the p99 wait bars (#0d47a1) are missing";
  EXPECT_GT(pixels_of(shot.image, 0x7b3fa0), 1000u) << "the start-up loss bar (#7b3fa0) is missing";
  expect_quiet_console(shot.log);
  // The energy section, below the lost GPU-hours: the power stacked by component.
  const Render tall = render(tmp, dir + "/report.html", 3600);
  ASSERT_EQ(tall.image.width, kWidth) << "no decodable PNG; chromium said:\n" << tall.log;
  EXPECT_GT(pixels_of(tall.image, 0xe65100), 20000u) << "the gpu_compute layer (#e65100) is missing";
  EXPECT_GT(pixels_of(tall.image, 0x5c6bc0), 20000u) << "the node layer (#5c6bc0) is missing";
  expect_quiet_console(tall.log);
}

TEST(ReportRender, SweepReportDrawsItsCurves)
{
  ASSERT_TRUE(have_chromium()) << kInstallHint;
  TempDir tmp;
  const std::string file = tmp.write("sweep.yaml", "base: " + std::string(FLEETSIM_SOURCE_DIR) +
                                                       "/scenarios/lemon_retirement.yaml\nreplicas: 3\n"
                                                       "set: {run.duration: 10d}\nvary:\n"
                                                       "  lemons.retire_after: [0, 3]\n  spares.nodes: [0, 2, 4]\n");
  const std::string dir = tmp / "sweep";
  auto r = run_command(kBinary + " sweep " + file + " --out " + dir + " -j 2 --quiet 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  r = run_command(kBinary + " report " + dir + " --quiet 2>&1");
  ASSERT_EQ(r.code, 0) << r.text;
  const Render shot = render(tmp, dir + "/report.html", 1600);
  ASSERT_EQ(shot.code, 0) << shot.log;
  ASSERT_EQ(shot.image.width, kWidth) << "no decodable PNG; chromium said:\n" << shot.log;
  const Stats s = stats_of(shot.image);
  EXPECT_GT(s.non_white, 0.05) << "the page looks blank";
  EXPECT_GT(s.colours, 200u);
  EXPECT_GT(pixels_of(shot.image, 0x1f6fb4), 1000u) << "the first series (#1f6fb4) is missing";
  EXPECT_GT(pixels_of(shot.image, 0xe8710a), 1000u) << "the second series (#e8710a) is missing";
  expect_quiet_console(shot.log);
}

}  // namespace
