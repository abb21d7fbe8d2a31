import MatteboxBatch
import Testing

/// `--memory-budget`'s sizes, the machine's default and a photo's estimate.
struct BatchMemoryBudgetTests {
    @Test func sizesAreReadInPowersOf1024() throws {
        #expect(try BatchMemoryBudget.parse("900M")?.bytes == 900 << 20)
        #expect(try BatchMemoryBudget.parse("1.5G")?.bytes == 3 << 29)
        #expect(try BatchMemoryBudget.parse("2GiB")?.bytes == 2 << 30)
        #expect(try BatchMemoryBudget.parse("4096")?.bytes == 4096)
        #expect(try BatchMemoryBudget.parse("none") == nil)
        for wrong in ["", "12X", "-1G", "G", "1.5.2M"] {
            #expect(throws: (any Error).self, "\(wrong)") { try BatchMemoryBudget.parse(wrong) }
        }
    }

    @Test func theDefaultIsFourFifthsOfWhatIsAvailable() {
        let meminfo = "MemTotal:        2000000 kB\nMemFree:          100000 kB\nMemAvailable:    1000000 kB\n"
        #expect(BatchMemoryBudget.machineDefault(meminfo: meminfo) == BatchMemoryBudget(bytes: 800_000 * 1024, isDefault: true))
        #expect(BatchMemoryBudget.machineDefault(meminfo: "MemTotal: 1 kB\n") == nil)
    }

    @Test func aPhotosEstimateGrowsWithItsPixels() {
        #expect(BatchMemoryBudget.workerCost(pixels: 12_000_000) > 350 << 20)
        #expect(BatchMemoryBudget.workerCost(pixels: 1_000_000) < 120 << 20)
        #expect(BatchMemoryBudget.workerCost(pixels: nil) == BatchMemoryBudget.workerCost(pixels: 12_000_000))
    }
}
