package io.ringwire.lab;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lab's packages by role (command line, experiments, load generators, servers, clients, host, results, reports,
 * cost model, soak) depend on each other without a cycle, and results sit at the bottom: the report writers depend on
 * them, never the reverse.
 */
class LabPackagesTest {
    private static final JavaClasses LAB = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.ringwire.lab");

    @Test
    void everyClassLivesInAPackageByRole() {
        assertTrue(LAB.size() > 40, "the lab's classes were found: " + LAB.size());
        noClasses().should().resideInAPackage("io.ringwire.lab").because("each class belongs to a role's package")
            .check(LAB);
    }

    @Test
    void thePackagesDependOnEachOtherWithoutACycle() {
        slices().matching("io.ringwire.lab.(*)..").should().beFreeOfCycles().check(LAB);
    }

    @Test
    void resultsDependOnNoOtherPackageOfTheLab() {
        noClasses().that().resideInAPackage("io.ringwire.lab.results..").should().dependOnClassesThat()
            .resideInAnyPackage("io.ringwire.lab.cli..", "io.ringwire.lab.experiment..", "io.ringwire.lab.load..",
                "io.ringwire.lab.server..", "io.ringwire.lab.host..", "io.ringwire.lab.report..",
                "io.ringwire.lab.cost..", "io.ringwire.lab.soak..", "io.ringwire.lab.client..")
            .check(LAB);
    }
}
