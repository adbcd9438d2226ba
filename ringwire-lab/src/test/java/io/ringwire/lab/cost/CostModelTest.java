package io.ringwire.lab.cost;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The cost model's arithmetic and plausibility checks, on made-up medians: no timing is involved. */
class CostModelTest {
    private static double[] batchCurve(double... perOp) {
        assertEquals(CostModel.BATCHES.length, perOp.length);
        return perOp;
    }

    private static final double[] QUIET = {0.1, 0.1, 0.1, 0.1, 0.1, 0.1};

    @Test
    void shouldTakeTheClockAndTheSwitchOffEachFigure() {
        CostModel.Raw raw = new CostModel.Raw(20, 250, 1800, 1400, 2300, 1900,
            batchCurve(2300, 1300, 800, 550, 420, 360, 330), QUIET);
        CostModel.Costs c = CostModel.Costs.derive(raw, 128);
        assertEquals(230, c.s(), 1e-9);
        assertEquals((1800 + 1400) / 2.0 - 20 - 230, c.w(), 1e-9);
        assertEquals((2300 + 1900) / 2.0 - 20 - 230, c.t(), 1e-9);
        assertEquals(2300 - 20, c.perOpAtN()[0], 1e-9);
        assertEquals(330 - 20 / 64.0, c.perOpAtN()[6], 1e-9);
        assertTrue(c.caveats().isEmpty(), c.caveats()::toString);
        assertTrue(c.table().contains("s = 230 ns"), c::table);
    }

    @Test
    void shouldSayTooNoisyInsteadOfANegativeCost() {
        // what CI saw once: a slow getppid (preempted) made t come out negative
        CostModel.Raw raw = new CostModel.Raw(20, 6891, 7000, 6000, 5500, 6300,
            batchCurve(5500, 3000, 1500, 900, 600, 500, 450), QUIET);
        CostModel.Costs c = CostModel.Costs.derive(raw, 128);
        assertEquals(6871, c.s(), 1e-9);
        assertTrue(Double.isNaN(c.w()), c::table);
        assertTrue(Double.isNaN(c.t()), c::table);
        assertTrue(Double.isNaN(c.epoll()), c::table);
        assertTrue(c.caveats().stream().anyMatch(x -> x.startsWith("w: too noisy to tell")), c::table);
        assertTrue(c.caveats().stream().anyMatch(x -> x.startsWith("t: too noisy to tell")), c::table);
        assertTrue(c.table().contains("t = too noisy"), c::table);
        assertTrue(Arrays.stream(c.perOpAtN()).allMatch(v -> v > 0), c::table);
    }

    @Test
    void shouldRefuseASwitchNoMachineNeeds() {
        CostModel.Raw raw = new CostModel.Raw(20, 50_000, 60_000, 60_000, 60_000, 60_000,
            batchCurve(1, 1, 1, 1, 1, 1, 1), QUIET);
        CostModel.Costs c = CostModel.Costs.derive(raw, 128);
        assertTrue(Double.isNaN(c.s()), c::table);
        assertTrue(Double.isNaN(c.w()) && Double.isNaN(c.t()), "both depend on s: " + c.table());
        assertTrue(c.caveats().get(0).contains("the CPU was shared"), c::table);
    }

    @Test
    void shouldFlagFiguresWhoseRoundsDisagree() {
        CostModel.Raw raw = new CostModel.Raw(20, 250, 1800, 1400, 2300, 1900,
            batchCurve(2300, 1300, 800, 550, 420, 360, 330), new double[] {0.1, 2.0, 0.1, 0.1, 0.1, 0.1});
        CostModel.Costs c = CostModel.Costs.derive(raw, 128);
        assertEquals(230, c.s(), 1e-9);
        assertEquals(1, c.caveats().size(), c::table);
        assertTrue(c.caveats().get(0).startsWith("getppid varied 200 %"), c::table);
    }
}
