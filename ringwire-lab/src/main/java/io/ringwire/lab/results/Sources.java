package io.ringwire.lab.results;

/**
 * The five published texts whose workloads the lab runs again (README.md, "Where Ringwire comes from"), each by the
 * short name docs/benchmarks.md gives it, its title and its link. Constants, so that the command line's help cites
 * them as the lab's output does: {@code *_CITED} with the title and the link (the help, report.html), {@code *_LINKED}
 * with the link only (the terminal's summary lines).
 */
public final class Sources {
    /** Norman Maurer, netty.io, November 2020: the first io_uring transport and its echo benchmark. */
    public static final String NETTY = "Netty's announcement";
    public static final String NETTY_TITLE = "Netty/Incubator/Transport/Native/io_uring 0.0.1.Final released";
    public static final String NETTY_LINK = "https://netty.io/news/2020/11/16/io_uring-0-0-1-Final.html";
    public static final String NETTY_CITED = NETTY + " (\"" + NETTY_TITLE + "\", " + NETTY_LINK + ")";
    public static final String NETTY_LINKED = NETTY + " (" + NETTY_LINK + ")";

    /** jauntsdn, 2021: the incubator transport under an RSocket RPC library; back end, front end, single stream. */
    public static final String RSOCKET = "the RSocket evaluation";
    public static final String RSOCKET_TITLE = "IO_URING for Netty based RPC: quick analysis";
    public static final String RSOCKET_LINK = "https://jauntsdn.com/post/rpc-iouring/";
    public static final String RSOCKET_CITED = RSOCKET + " (\"" + RSOCKET_TITLE + "\", " + RSOCKET_LINK + ")";
    public static final String RSOCKET_LINKED = RSOCKET + " (" + RSOCKET_LINK + ")";

    /**
     * A Chinese-language critique of the incubator transport, 2021: redis-benchmark SET against Netty's redis codec.
     * README.md gives it no link: its title stands for one.
     */
    public static final String CRITIQUE = "the critique";
    public static final String CRITIQUE_TITLE = "如何评价Netty封装的io_uring?";
    public static final String CRITIQUE_CITED = CRITIQUE + " (\"" + CRITIQUE_TITLE
        + "\", \"What to make of Netty's io_uring wrapper?\", 2021)";
    public static final String CRITIQUE_LINKED = CRITIQUE + " (" + CRITIQUE_TITLE + ")";

    /** Wang Xiaoguang (OpenAnolis), 2021: s + w per operation for epoll, (s + t) / n for io_uring. */
    public static final String COST_MODEL = "the OpenAnolis cost model";
    public static final String COST_MODEL_TITLE = "io_uring vs epoll，谁在网络编程领域更胜一筹？";
    public static final String COST_MODEL_LINK = "https://juejin.cn/post/7045098217121251335";
    public static final String COST_MODEL_CITED = COST_MODEL + " (\"" + COST_MODEL_TITLE + "\", " + COST_MODEL_LINK
        + ")";
    public static final String COST_MODEL_LINKED = COST_MODEL + " (" + COST_MODEL_LINK + ")";

    /** Paul Tyma, Mailinator blog, February 2008: blocking threads beat NIO selectors. */
    public static final String TYMA = "Tyma's test";
    public static final String TYMA_TITLE = "Kill the myth please. NIO is not faster than IO";
    public static final String TYMA_LINK =
        "http://mailinator.blogspot.com/2008/02/kill-myth-please-nio-is-not-faster-than.html";
    public static final String TYMA_CITED = TYMA + " (\"" + TYMA_TITLE + "\", " + TYMA_LINK + ")";
    public static final String TYMA_LINKED = TYMA + " (" + TYMA_LINK + ")";

    private Sources() {
    }

    /**
     * @param text a short name, or a sentence that starts with one
     * @return it with its first letter in upper case, to start a line
     */
    public static String capitalized(String text) {
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }
}
