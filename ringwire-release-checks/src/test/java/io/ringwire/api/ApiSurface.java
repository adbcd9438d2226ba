package io.ringwire.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public surface of one published module, as text: a line per public type of its exported packages, then an
 * indented line per public or protected constructor, method and field (those a public type inherits from a
 * package-private class of the module included, as they are callable through it; a final class's protected ones left
 * out, as nothing can reach them). Sorted, so that the text changes
 * only when the surface does. The habit of OkHttp's {@code api/*.api} files: every change to the API shows in review.
 */
final class ApiSurface {
    private ApiSurface() { }

    /** Where a module's classes are: its jar (in a build that packaged it) or its classes directory. */
    static Path codeSource(Class<?> member) {
        try {
            return Path.of(member.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * @return the module descriptor packed with {@code code}: the jar's, or the one the build compiled beside a
     *         classes directory ({@code target/module-descriptor}); empty when the build has not made it yet
     */
    static Optional<ModuleDescriptor> descriptor(Path code) throws IOException {
        Path file;
        if (Files.isDirectory(code)) {
            file = code.resolveSibling("module-descriptor").resolve("module-info.class");
            if (!Files.exists(file)) {
                return Optional.empty();
            }
            try (var in = Files.newInputStream(file)) {
                return Optional.of(ModuleDescriptor.read(in));
            }
        }
        try (FileSystem jar = FileSystems.newFileSystem(code)) {
            file = jar.getPath("module-info.class");
            if (!Files.exists(file)) {
                return Optional.empty();
            }
            try (var in = Files.newInputStream(file)) {
                return Optional.of(ModuleDescriptor.read(in));
            }
        }
    }

    /**
     * @return the {@code Automatic-Module-Name} of {@code code}'s manifest; empty for a classes directory that the
     *         build has not packed yet, and for a jar without one
     */
    static Optional<String> automaticModuleName(Path code) throws IOException {
        if (Files.isDirectory(code)) {
            return Optional.empty();
        }
        try (var jar = new java.util.jar.JarFile(code.toFile())) {
            java.util.jar.Manifest m = jar.getManifest();
            return Optional.ofNullable(m == null ? null : m.getMainAttributes().getValue("Automatic-Module-Name"));
        }
    }

    /** @return the binary names of every class in {@code code} (a jar or a directory) */
    static List<String> classNames(Path code) throws IOException {
        if (Files.isDirectory(code)) {
            return classNamesUnder(code);
        }
        try (FileSystem jar = FileSystems.newFileSystem(code)) {
            return classNamesUnder(jar.getPath("/"));
        }
    }

    private static List<String> classNamesUnder(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.map(p -> root.relativize(p).toString())
                .filter(n -> n.endsWith(".class") && !n.contains("module-info") && !n.startsWith("META-INF"))
                .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                .sorted().toList();
        }
    }

    /**
     * @param code     the module's jar or classes directory
     * @param packages its exported packages
     * @return its public surface, one line per type or member
     */
    static List<String> of(Path code, Set<String> packages) throws IOException {
        List<String> lines = new ArrayList<>();
        ClassLoader loader = ApiSurface.class.getClassLoader();
        for (String name : classNames(code)) {
            int dot = name.lastIndexOf('.');
            if (!packages.contains(name.substring(0, dot))) {
                continue;
            }
            Class<?> c;
            try {
                c = Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                throw new IllegalStateException("cannot load " + name, e);
            }
            if (!isVisible(c)) {
                continue;
            }
            lines.add(typeLine(c));
            TreeSet<String> members = new TreeSet<>();
            for (Class<?> k = c; k != null && (k == c || declaredInModuleButHidden(k, c)); k = k.getSuperclass()) {
                members.addAll(members(k, c));
            }
            members.forEach(m -> lines.add("  " + m));
        }
        return lines;
    }

    /** A public type, and every type it is nested in public too. */
    private static boolean isVisible(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
            if (!Modifier.isPublic(k.getModifiers())) {
                return false;
            }
        }
        return !c.isSynthetic() && !c.isAnonymousClass() && !c.isLocalClass();
    }

    /** {@code k} is a superclass of {@code c}, from the same package, that is not public itself. */
    private static boolean declaredInModuleButHidden(Class<?> k, Class<?> c) {
        return !Modifier.isPublic(k.getModifiers()) && k.getPackageName().equals(c.getPackageName());
    }

    private static String typeLine(Class<?> c) {
        StringBuilder sb = new StringBuilder();
        int m = c.getModifiers();
        if (c.isInterface()) {
            m &= ~Modifier.ABSTRACT;
        }
        if (c.isRecord() || c.isEnum()) {
            m &= ~Modifier.FINAL;
        }
        sb.append(Modifier.toString(m & (Modifier.PUBLIC | Modifier.PROTECTED | Modifier.ABSTRACT | Modifier.STATIC
            | Modifier.FINAL)));
        sb.append(c.isAnnotation() ? " @interface " : c.isInterface() ? " interface " : c.isEnum() ? " enum "
            : c.isRecord() ? " record " : " class ");
        sb.append(typeName(c));
        if (c.getTypeParameters().length > 0) {
            sb.append(Arrays.stream(c.getTypeParameters()).map(t -> t.getName() + bounds(t.getBounds()))
                .collect(Collectors.joining(", ", "<", ">")));
        }
        Type sup = c.getGenericSuperclass();
        if (sup != null && sup != Object.class && !c.isEnum() && !c.isRecord()) {
            sb.append(" extends ").append(visibleSuper(c));
        }
        Type[] interfaces = c.getGenericInterfaces();
        if (interfaces.length > 0) {
            sb.append(c.isInterface() ? " extends " : " implements ").append(Arrays.stream(interfaces)
                .map(ApiSurface::typeName).sorted().collect(Collectors.joining(", ")));
        }
        return sb.toString();
    }

    /** The first superclass a user sees: a hidden one of the module is skipped to the one above it. */
    private static String visibleSuper(Class<?> c) {
        Class<?> k = c.getSuperclass();
        Type generic = c.getGenericSuperclass();
        while (k != null && declaredInModuleButHidden(k, c)) {
            generic = k.getGenericSuperclass();
            k = k.getSuperclass();
        }
        return typeName(generic);
    }

    private static String bounds(Type[] bounds) {
        if (bounds.length == 1 && bounds[0] == Object.class) {
            return "";
        }
        return " extends " + Arrays.stream(bounds).map(ApiSurface::typeName).collect(Collectors.joining(" & "));
    }

    private static List<String> members(Class<?> k, Class<?> owner) {
        List<String> out = new ArrayList<>();
        // a final class's protected members reach no one: no class can extend it
        boolean sealedOff = Modifier.isFinal(owner.getModifiers());
        for (Constructor<?> ctor : k.getDeclaredConstructors()) {
            if (k == owner && visible(ctor.getModifiers(), sealedOff) && !ctor.isSynthetic()) {
                out.add(modifiers(ctor.getModifiers()) + typeName(owner) + params(ctor.getGenericParameterTypes())
                    + throwsClause(ctor.getGenericExceptionTypes()));
            }
        }
        for (Method method : k.getDeclaredMethods()) {
            if (visible(method.getModifiers(), sealedOff) && !method.isSynthetic() && !method.isBridge()) {
                int mods = method.getModifiers();
                if (owner.isInterface()) {
                    mods &= ~Modifier.ABSTRACT;
                }
                String generics = method.getTypeParameters().length == 0 ? "" : Arrays.stream(
                    method.getTypeParameters()).map(t -> t.getName() + bounds(t.getBounds()))
                    .collect(Collectors.joining(", ", "<", "> "));
                out.add(modifiers(mods) + (method.isDefault() ? "default " : "") + generics
                    + typeName(method.getGenericReturnType()) + " " + method.getName()
                    + params(method.getGenericParameterTypes()) + throwsClause(method.getGenericExceptionTypes()));
            }
        }
        for (Field field : k.getDeclaredFields()) {
            if (visible(field.getModifiers(), sealedOff) && !field.isSynthetic()) {
                out.add(modifiers(field.getModifiers()) + typeName(field.getGenericType()) + " " + field.getName());
            }
        }
        return out;
    }

    private static boolean visible(int modifiers, boolean sealedOff) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers) && !sealedOff;
    }

    private static String modifiers(int m) {
        String s = Modifier.toString(m & (Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC | Modifier.FINAL
            | Modifier.ABSTRACT));
        return s.isEmpty() ? "" : s + " ";
    }

    private static String params(Type[] types) {
        return Arrays.stream(types).map(ApiSurface::typeName).collect(Collectors.joining(", ", "(", ")"));
    }

    private static String throwsClause(Type[] types) {
        return types.length == 0 ? "" : " throws " + Arrays.stream(types).map(ApiSurface::typeName).sorted()
            .collect(Collectors.joining(", "));
    }

    private static String typeName(Type t) {
        return t instanceof Class<?> c ? c.getTypeName() : t.getTypeName();
    }

    /** @return the lines of {@code file}, or none if it does not exist */
    static List<String> read(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
