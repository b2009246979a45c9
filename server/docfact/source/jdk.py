"""What every Java file may name without declaring it: the language's keywords and
literals, java.lang, the members every object has, the common types of java.util,
java.io and friends, and the JDK's exception hierarchy (to tell checked exceptions,
which a method can only throw when its throws clause says so, from unchecked ones).
Also the public types of each package of the Java SE API (``jdk_api.txt``, made by
``tools/jdk_api.py``), which a wildcard import brings into a file."""

from __future__ import annotations

from pathlib import Path

KEYWORDS = frozenset(
    """
    abstract assert boolean break byte case catch char class const continue default do double
    else enum extends final finally float for goto if implements import instanceof int
    interface long native new package private protected public return short static strictfp
    super switch synchronized this throw throws transient try void volatile while var record
    yield sealed permits non-sealed true false null
""".split()
)


def _api() -> dict[str, frozenset[str]]:
    lines = Path(__file__).with_name("jdk_api.txt").read_text(encoding="utf-8").splitlines()
    return {
        words[0]: frozenset(words[1:])
        for words in (line.split() for line in lines if not line.startswith("#"))
    }


_API = _api()  # a millisecond to read: java.lang is needed at once anyway


def package_types(package: str) -> frozenset[str] | None:
    """The public types of a package of the Java SE API; None for any other package."""
    return _API.get(package)


JAVA_LANG = _API["java.lang"]  # what every file imports

OBJECT_MEMBERS = frozenset(
    "equals hashCode toString getClass clone finalize notify notifyAll wait length".split()
)

COMMON_TYPES = frozenset(
    """
    List ArrayList LinkedList Map HashMap TreeMap LinkedHashMap SortedMap NavigableMap Set
    HashSet TreeSet LinkedHashSet SortedSet NavigableSet Collection Collections Arrays
    Iterator ListIterator Queue Deque ArrayDeque PriorityQueue Optional OptionalInt
    OptionalLong OptionalDouble Objects Comparator Random Locale UUID Properties Spliterator
    Stream IntStream LongStream DoubleStream Collectors Function BiFunction Supplier Consumer
    BiConsumer Predicate BiPredicate UnaryOperator BinaryOperator Callable Future
    CompletableFuture Executor ExecutorService TimeUnit ConcurrentHashMap ConcurrentMap
    AtomicInteger AtomicLong AtomicBoolean AtomicReference Lock ReentrantLock File Path Paths
    Files InputStream OutputStream Reader Writer Serializable Closeable Flushable PrintStream
    BufferedReader BufferedWriter Charset StandardCharsets BigInteger BigDecimal Instant
    Duration LocalDate LocalDateTime LocalTime ZonedDateTime Pattern Matcher URI URL
""".split()
)

# Exception -> its superclass, for the exceptions of java.base that documentation names.
EXCEPTION_PARENTS = {
    "Exception": "Throwable",
    "Error": "Throwable",
    "RuntimeException": "Exception",
    "IllegalArgumentException": "RuntimeException",
    "NumberFormatException": "IllegalArgumentException",
    "IllegalFormatException": "IllegalArgumentException",
    "PatternSyntaxException": "IllegalArgumentException",
    "InvalidPathException": "IllegalArgumentException",
    "IllegalStateException": "RuntimeException",
    "NullPointerException": "RuntimeException",
    "IndexOutOfBoundsException": "RuntimeException",
    "ArrayIndexOutOfBoundsException": "IndexOutOfBoundsException",
    "StringIndexOutOfBoundsException": "IndexOutOfBoundsException",
    "UnsupportedOperationException": "RuntimeException",
    "ReadOnlyBufferException": "UnsupportedOperationException",
    "ClassCastException": "RuntimeException",
    "ArithmeticException": "RuntimeException",
    "ArrayStoreException": "RuntimeException",
    "NegativeArraySizeException": "RuntimeException",
    "SecurityException": "RuntimeException",
    "ConcurrentModificationException": "RuntimeException",
    "NoSuchElementException": "RuntimeException",
    "InputMismatchException": "NoSuchElementException",
    "EmptyStackException": "RuntimeException",
    "UncheckedIOException": "RuntimeException",
    "DateTimeException": "RuntimeException",
    "DateTimeParseException": "DateTimeException",
    "BufferOverflowException": "RuntimeException",
    "BufferUnderflowException": "RuntimeException",
    "CompletionException": "RuntimeException",
    "CancellationException": "IllegalStateException",
    "RejectedExecutionException": "RuntimeException",
    "IllegalMonitorStateException": "RuntimeException",
    "IOException": "Exception",
    "FileNotFoundException": "IOException",
    "EOFException": "IOException",
    "UnsupportedEncodingException": "IOException",
    "CharacterCodingException": "IOException",
    "MalformedURLException": "IOException",
    "InterruptedIOException": "IOException",
    "NoSuchFileException": "IOException",
    "FileAlreadyExistsException": "IOException",
    "AccessDeniedException": "IOException",
    "DirectoryNotEmptyException": "IOException",
    "ClosedChannelException": "IOException",
    "ObjectStreamException": "IOException",
    "NotSerializableException": "ObjectStreamException",
    "InvalidObjectException": "ObjectStreamException",
    "InterruptedException": "Exception",
    "CloneNotSupportedException": "Exception",
    "ReflectiveOperationException": "Exception",
    "ClassNotFoundException": "ReflectiveOperationException",
    "NoSuchMethodException": "ReflectiveOperationException",
    "NoSuchFieldException": "ReflectiveOperationException",
    "IllegalAccessException": "ReflectiveOperationException",
    "InstantiationException": "ReflectiveOperationException",
    "InvocationTargetException": "ReflectiveOperationException",
    "TimeoutException": "Exception",
    "ExecutionException": "Exception",
    "BrokenBarrierException": "Exception",
    "URISyntaxException": "Exception",
    "ParseException": "Exception",
    "GeneralSecurityException": "Exception",
    "NoSuchAlgorithmException": "GeneralSecurityException",
    "InvalidKeyException": "GeneralSecurityException",
    "SQLException": "Exception",
    "AssertionError": "Error",
    "OutOfMemoryError": "Error",
    "StackOverflowError": "Error",
    "LinkageError": "Error",
    "ExceptionInInitializerError": "LinkageError",
}

# Thrown by the language itself (a dereference, an array store, a cast, a division), so
# a method may throw them without a throw statement or a call.
IMPLICIT_EXCEPTIONS = frozenset(
    {
        "NullPointerException",
        "ArrayIndexOutOfBoundsException",
        "IndexOutOfBoundsException",
        "ArrayStoreException",
        "ClassCastException",
        "ArithmeticException",
        "NegativeArraySizeException",
    }
)

# Too general to be wrong: anything may be one of them.
GENERAL_EXCEPTIONS = frozenset({"Throwable", "Exception", "RuntimeException", "Error"})


def ancestors(exception: str) -> list[str]:
    """The known superclasses of ``exception`` (a simple name), nearest first."""
    found = []
    while exception in EXCEPTION_PARENTS and exception not in found:
        exception = EXCEPTION_PARENTS[exception]
        found.append(exception)
    return found


def is_checked(exception: str) -> bool | None:
    """Whether the JDK exception ``exception`` is checked; None when it is not known."""
    lineage = ancestors(exception)
    if not lineage:
        return None
    return (
        "Exception" in lineage
        and "RuntimeException" not in lineage
        and exception != "RuntimeException"
    )


def related(first: str, second: str) -> bool:
    """Whether one of the two JDK exceptions is the other or inherits from it."""
    return first == second or first in ancestors(second) or second in ancestors(first)


UNIVERSAL_NAMES = (
    KEYWORDS | JAVA_LANG | OBJECT_MEMBERS | COMMON_TYPES | frozenset(EXCEPTION_PARENTS)
)
