package io.ringwire.docs;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The classes of one module as the build made them (its classes directory, or its jar once packaged): their names,
 * and the string constants compiled into them. Every {@code CONSTANT_String} of a class's constant pool holds a string
 * literal or a compile-time constant the class uses (a {@code static final String} named elsewhere is copied in).
 * This is how {@link ReferenceTest} finds the system properties the code reads, wherever and however it reads them,
 * without a list kept by hand.
 */
final class ClassFiles {
    private ClassFiles() { }

    /**
     * @param inModule any class of the module
     * @return the string constants of every class in the module
     */
    static Set<String> stringConstants(Class<?> inModule) {
        Set<String> constants = new TreeSet<>();
        for (byte[] c : read(inModule).values()) {
            try {
                constants.addAll(stringConstants(c));
            } catch (IOException e) {
                throw new UncheckedIOException("reading a class of " + location(inModule), e);
            }
        }
        return constants;
    }

    /**
     * @param inModule any class of the module
     * @return the binary names of every class in the module, nested ones included
     */
    static Set<String> classNames(Class<?> inModule) {
        return read(inModule).keySet();
    }

    private static Path location(Class<?> inModule) {
        try {
            return Path.of(inModule.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return each class file of the module by its class's binary name */
    private static Map<String, byte[]> read(Class<?> inModule) {
        Path location = location(inModule);
        Map<String, byte[]> classes = new TreeMap<>();
        try {
            if (Files.isDirectory(location)) {
                try (Stream<Path> files = Files.walk(location)) {
                    for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                        classes.put(binaryName(location.relativize(p).toString()), Files.readAllBytes(p));
                    }
                }
                return classes;
            }
            try (JarFile jar = new JarFile(location.toFile())) {
                for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                    JarEntry entry = e.nextElement();
                    if (entry.getName().endsWith(".class") && !entry.getName().startsWith("META-INF/")) {
                        try (InputStream in = jar.getInputStream(entry)) {
                            classes.put(binaryName(entry.getName()), in.readAllBytes());
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the classes at " + location, e);
        }
        return classes;
    }

    private static String binaryName(String classFile) {
        return classFile.substring(0, classFile.length() - ".class".length()).replace('/', '.').replace('\\', '.');
    }

    /** Reads a class file's constant pool (JVMS 4.4) and returns the texts its String entries point to. */
    static List<String> stringConstants(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor
        in.readUnsignedShort(); // major
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        List<Integer> strings = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF(); // modified UTF-8 with its u2 length, as readUTF expects
                case 8 -> strings.add(in.readUnsignedShort());
                case 7, 16, 19, 20 -> in.skipBytes(2);
                case 15 -> in.skipBytes(3);
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipBytes(4);
                case 5, 6 -> {
                    in.skipBytes(8);
                    i++; // a long or double takes two entries
                }
                default -> throw new IOException("constant pool tag " + tag + " at entry " + i);
            }
        }
        List<String> texts = new ArrayList<>();
        for (int index : strings) {
            texts.add(utf8[index]);
        }
        return texts;
    }
}
